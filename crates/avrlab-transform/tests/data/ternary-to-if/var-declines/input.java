class Input {
    Object target(boolean b) {
        var x = b ? "a" : "b";
        return x;
    }
}
