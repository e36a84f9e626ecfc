class Input {
    int target(int[] xs) {
        int n = 0;
        for (int x : xs) {
            switch (x) {
                case 0:
                    if (n > 3) break;
                    n++;
                    break;
                default:
                    n += 2;
            }
        }
        return n;
    }
}
// switch-to-if line 5: Declined { reason: "a `break` inside a case leaves the switch early" }
