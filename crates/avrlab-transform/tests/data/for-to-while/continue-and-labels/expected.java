class Input {
    int target(int[] xs) {
        int sum = 0;
        int i = 0;
        outer: while (i < xs.length) {
            for (int j = 0; j < i; j++) {
                if (xs[j] < 0) { i++; continue outer; }
                if (xs[j] == 0) continue;
                sum += xs[j];
            }
            if (sum > 100) break;
            i++;
        }
        return sum;
    }
}
// for-to-while line 5: Applied { detail: "for-to-while at line 5" }
// for-to-while line 6: Declined { reason: "overlaps another rewrite" }
