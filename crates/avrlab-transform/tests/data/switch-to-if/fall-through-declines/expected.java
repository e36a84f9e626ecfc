class Input {
    int target(int code) {
        int n = 0;
        switch (code) {
            case 1:
                n++;
            case 2:
                n++;
                break;
            default:
                n = -1;
        }
        return n;
    }
}
// switch-to-if line 4: Declined { reason: "a case falls through into the next" }
