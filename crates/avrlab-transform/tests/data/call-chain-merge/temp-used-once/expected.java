class Input {
    int target(String s) {
        int n = s.trim().length();
        String other = s.toLowerCase();
        other.isEmpty();
        return n + other.length();
    }
}
// call-chain-merge line 3: Applied { detail: "call-chain-merge at line 3" }
// call-chain-merge line 5: Declined { reason: "the temporary is used more than once" }
