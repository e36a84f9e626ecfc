class Input {
    static class Config { String value() { return "v"; } }

    Config config() { return new Config(); }

    String target() {
        String v = config().value().trim();
        return v;
    }
}
