class Input {
    enum Color { RED, GREEN, BLUE }

    int target(Color c) {
        int v = 0;
        if (c.equals(Input.Color.RED)) {
            v = 1;
        } else if (c.equals(Input.Color.GREEN) || c.equals(Input.Color.BLUE)) {
            v = 2;
        }
        return v;
    }
}
// switch-to-if line 6: Applied { detail: "switch-to-if at line 6" }
