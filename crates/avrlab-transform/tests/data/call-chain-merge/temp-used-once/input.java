class Input {
    int target(String s) {
        String trimmed = s.trim();
        int n = trimmed.length();
        String other = s.toLowerCase();
        other.isEmpty();
        return n + other.length();
    }
}
