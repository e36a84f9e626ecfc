class Input {
    int target(int[] xs) {
        int sum = 0;
        outer:
        for (int i = 0; i < xs.length; i++) {
            for (int j = 0; j < i; j++) {
                if (xs[j] < 0) continue outer;
                if (xs[j] == 0) continue;
                sum += xs[j];
            }
            if (sum > 100) break;
        }
        return sum;
    }
}
