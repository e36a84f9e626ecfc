class Input {
    String target(int kind, String name) {
        String out;
        switch (kind) {
            case 1: case 2: {
                out = "small";
                break;
            }
            case 3: {
                return "three";
            }
            default: {
                out = "other";
                break;
            }
        }
        switch (name) {
            case "x": {
                out += "!";
                break;
            }
            case "y": {
                out += "?";
                break;
            }
        }
        return out;
    }
}
// if-to-switch line 4: Applied { detail: "if-to-switch at line 4" }
// if-to-switch line 11: Applied { detail: "if-to-switch at line 11" }
