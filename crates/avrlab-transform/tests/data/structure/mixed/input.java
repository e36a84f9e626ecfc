class Input {
    int target(int[] values, int threshold) {
        int total = 0;
        for (int index = 0; index < values.length; index++) {
            int current = values[index];
            total += current > threshold ? current : 0;
        }
        if (total == 0) {
            return -1;
        }
        return total;
    }
}
