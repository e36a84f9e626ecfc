class Input {
    String target(int a, String s) {
        String label = a > 0 ? "pos" : a < 0 ? "neg" : "zero";
        int size;
        size = s == null ? 0 : s.length();
        return a > 10 ? (a > 100 ? "huge" : "big") : label + size;
    }
}
