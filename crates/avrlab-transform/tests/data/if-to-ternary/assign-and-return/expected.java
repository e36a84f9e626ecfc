class Input {
    int target(int a) {
        int r;
        r = a > 0 ? a : -a;
        return r > 10 ? 10 : r;
    }
}
// if-to-ternary line 4: Applied { detail: "if-to-ternary at line 4" }
// if-to-ternary line 9: Applied { detail: "if-to-ternary at line 9" }
