class Input {
    void target(StringBuilder sb) {
        String sep = ", ";
        sb.append(sep);
        long big = 1;
        sb.append(big);
    }
}
