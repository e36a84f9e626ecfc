class Input {
    int target(int a) {
        int r = 0;
        if (a > 3) r = 1;
        if (!(a < 0)) {
            r += 2;
        } else if (a == -1) {
            r = -1;
        } else {
            r = -2;
        }
        return r;
    }
}
