class Input {
    static class Config { String value() { return "v"; } }

    Config config() { return new Config(); }

    String target() {
        String value2 = config().value();
        String v = value2.trim();
        return v;
    }
}
// call-chain-split line 7: Applied { detail: "call-chain-split at line 7" }
