class Input {
    int target(int a, int b) {
        int y = b + 1;
        int x = a * 2;
        int z = x + y;
        System.out.println(z);
        System.out.println(a);
        return z;
    }
}
// statement-reorder line 3: Applied { detail: "statement-reorder at line 3" }
// statement-reorder line 4: Declined { reason: "the statements share a variable one of them writes" }
// statement-reorder line 5: Declined { reason: "the statements share a variable one of them writes" }
// statement-reorder line 6: Declined { reason: "both statements call methods" }
