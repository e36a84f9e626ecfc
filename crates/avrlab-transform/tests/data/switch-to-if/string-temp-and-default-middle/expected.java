class Input {
    int target(String[] args) {
        int mode = 0;
        final var selector = args[0].trim();
        if (selector.equals("a")) {
            mode = 1;
        } else if (selector.equals("b")) {
            mode = 2;
        } else {
            mode = 9;
        }
        return mode;
    }
}
// switch-to-if line 4: Applied { detail: "switch-to-if at line 4" }
