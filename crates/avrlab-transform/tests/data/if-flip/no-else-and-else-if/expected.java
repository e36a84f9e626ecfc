class Input {
    int target(int a) {
        int r = 0;
        if (!(a > 3)) {
        } else {
            r = 1;
        }
        if (a < 0) {
            if (a == -1) {
                r = -1;
            } else {
                r = -2;
            }
        } else {
            r += 2;
        }
        return r;
    }
}
// if-flip line 4: Applied { detail: "if-flip at line 4" }
// if-flip line 5: Applied { detail: "if-flip at line 5" }
// if-flip line 7: Declined { reason: "overlaps another rewrite" }
