class Input {
    int target(int a, int b) {
        if (a == b) {
            return 1;
        } else {
            return 2;
        }
    }
}
