class Input {
    Object target(boolean b) {
        var x = b ? "a" : "b";
        return x;
    }
}
// ternary-to-if line 3: Declined { reason: "a `var` declaration needs its initializer" }
