class Input {
    int target(int[] values, int threshold) {
        int total = 0;
        int index = 0;
        while (index < values.length) {
            int current = values[index];
            total += current > threshold ? current : 0;
            index++;
        }
        if (total != 0) {
        } else {
            return -1;
        }
        return total;
    }
}
// for-to-while line 4: Applied { detail: "for-to-while at line 4" }
// statement-reorder line 5: Declined { reason: "the statements share a variable one of them writes" }
// ternary-to-if line 6: Declined { reason: "overlaps another rewrite" }
// if-flip line 8: Applied { detail: "if-flip at line 8" }
