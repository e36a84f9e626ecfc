class Input {
    String target(int code) {
        String msg;
        if (code == 1 || code == 2) {
            msg = "low";
        } else if (code == 3) {
            return "three";
        } else {
            msg = "other";
        }
        return msg;
    }
}
// switch-to-if line 4: Applied { detail: "switch-to-if at line 4" }
