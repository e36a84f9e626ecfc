class Input {
    int target(int a) {
        int r;
        if (a > 0) {
            r = a;
        } else {
            r = -a;
        }
        if (r > 10) return 10;
        else return r;
    }
}
