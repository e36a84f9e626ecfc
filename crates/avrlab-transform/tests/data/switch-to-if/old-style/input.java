class Input {
    String target(int code) {
        String msg;
        switch (code) {
            case 1:
            case 2:
                msg = "low";
                break;
            case 3:
                return "three";
            default:
                msg = "other";
        }
        return msg;
    }
}
