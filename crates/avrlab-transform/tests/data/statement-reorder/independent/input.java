class Input {
    int target(int a, int b) {
        int x = a * 2;
        int y = b + 1;
        int z = x + y;
        System.out.println(z);
        System.out.println(a);
        return z;
    }
}
