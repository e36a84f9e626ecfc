class Input {
    int target(int a, int b) {
        if (a != b) {
            return 2;
        } else {
            return 1;
        }
    }
}
// if-flip line 3: Applied { detail: "if-flip at line 3" }
