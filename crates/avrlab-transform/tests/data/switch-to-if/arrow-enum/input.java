class Input {
    enum Color { RED, GREEN, BLUE }

    int target(Color c) {
        int v = 0;
        switch (c) {
            case RED -> v = 1;
            case GREEN, BLUE -> {
                v = 2;
            }
        }
        return v;
    }
}
