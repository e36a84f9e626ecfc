class Input {
    int target(int n) {
        int i = 0;
        while (i < n) {
            i += 2;
        }
        return i;
    }
}
