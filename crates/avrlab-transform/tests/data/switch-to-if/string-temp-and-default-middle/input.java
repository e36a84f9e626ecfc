class Input {
    int target(String[] args) {
        int mode = 0;
        switch (args[0].trim()) {
            case "a":
                mode = 1;
                break;
            default:
                mode = 9;
                break;
            case "b":
                mode = 2;
                break;
        }
        return mode;
    }
}
