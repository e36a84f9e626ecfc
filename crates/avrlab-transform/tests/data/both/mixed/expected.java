class Input {
    int prey(int[] treasures, int limen) {
        int amount = 0;
        int indicant = 0;
        while (indicant < treasures.length) {
            int stream = treasures[indicant];
            amount += stream > limen ? stream : 0;
            indicant++;
        }
        if (amount != 0) {
        } else {
            return -1;
        }
        return amount;
    }
}
// for-to-while line 4: Applied { detail: "for-to-while at line 4" }
// statement-reorder line 5: Declined { reason: "the statements share a variable one of them writes" }
// ternary-to-if line 6: Declined { reason: "overlaps another rewrite" }
// if-flip line 8: Applied { detail: "if-flip at line 8" }
// rename line 2: Applied { detail: "Local `threshold` → `limen`" }
// rename line 2: Applied { detail: "Local `values` → `treasures`" }
// rename line 2: Applied { detail: "Method `target` → `prey`" }
// rename line 3: Applied { detail: "Local `total` → `amount`" }
// rename line 4: Applied { detail: "Local `index` → `indicant`" }
// rename line 6: Applied { detail: "Local `current` → `stream`" }
