class Input {
    String target(int a, String s) {
        String label;
        if (a > 0) {
            label = "pos";
        } else if (a < 0) {
            label = "neg";
        } else {
            label = "zero";
        }
        int size;
        if (s == null) {
            size = 0;
        } else {
            size = s.length();
        }
        if (a > 10) {
            if (a > 100) {
                return "huge";
            } else {
                return "big";
            }
        } else {
            return label + size;
        }
    }
}
// ternary-to-if line 3: Applied { detail: "ternary-to-if at line 3" }
// ternary-to-if line 5: Applied { detail: "ternary-to-if at line 5" }
// ternary-to-if line 6: Applied { detail: "ternary-to-if at line 6" }
