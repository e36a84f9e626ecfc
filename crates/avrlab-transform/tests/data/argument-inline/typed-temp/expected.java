class Input {
    void target(StringBuilder sb) {
        sb.append(", ");
        long big = 1;
        sb.append(big);
    }
}
// argument-inline line 3: Applied { detail: "argument-inline at line 3" }
// argument-inline line 5: Declined { reason: "the initializer's own type may differ from the declared one (overloads)" }
