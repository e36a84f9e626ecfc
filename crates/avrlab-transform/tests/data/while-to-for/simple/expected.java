class Input {
    int target(int n) {
        int i = 0;
        for (; i < n; ) {
            i += 2;
        }
        return i;
    }
}
// while-to-for line 4: Applied { detail: "while-to-for at line 4" }
