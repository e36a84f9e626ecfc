class Input {
    String target(int kind, String name) {
        String out;
        if (kind == 1 || kind == 2) {
            out = "small";
        } else if (kind == 3) {
            return "three";
        } else {
            out = "other";
        }
        if (name.equals("x")) {
            out += "!";
        } else if (name.equals("y")) {
            out += "?";
        }
        return out;
    }
}
