// Bench.java — the benchmark workload: about MB megabytes of live data in
// a realistic mix (maps of strings, lists of small objects, arrays, trees
// with deep dominator chains), then quiet until killed.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class Bench {
    static final class Order { long id; int qty; double price; String sku; Customer customer; List<Line> lines; }
    static final class Customer { String name; String email; int[] history; Map<String, String> attrs; }
    static final class Line { String product; int count; Order order; }
    static final class TreeNode { TreeNode left, right; byte[] data; }

    static final List<Object> ROOTS = new ArrayList<>();

    static TreeNode tree(int depth, int[] budget) {
        if (depth == 0 || budget[0] <= 0) return null;
        budget[0]--;
        TreeNode n = new TreeNode();
        n.data = new byte[16 + depth];
        n.left = tree(depth - 1, budget);
        n.right = tree(depth - 1, budget);
        return n;
    }

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[0]) << 20, made = 0;
        Map<Long, Order> orders = new HashMap<>();
        Map<String, Customer> customers = new TreeMap<>();
        ROOTS.add(orders);
        ROOTS.add(customers);
        long i = 0;
        while (made < target) {
            Customer c = customers.get("c" + (i % 50000));
            if (c == null) {
                c = new Customer();
                c.name = "customer-" + i;
                c.email = "c" + i + "@example.com";
                c.history = new int[(int) (i % 16)];
                c.attrs = new HashMap<>();
                c.attrs.put("tier", (i % 3 == 0) ? "gold" : "basic");
                customers.put("c" + (i % 50000), c);
                made += 320;
            }
            Order o = new Order();
            o.id = i;
            o.qty = (int) (i % 7);
            o.sku = "SKU-" + (i % 100000);
            o.customer = c;
            o.lines = new ArrayList<>(2);
            for (int k = 0; k < 2; k++) {
                Line l = new Line();
                l.product = o.sku;
                l.count = k;
                l.order = o;
                o.lines.add(l);
            }
            orders.put(i, o);
            made += 56 + 24 + 48 + 2 * 32 + 48 + 56;
            if (i % 5000 == 0) {
                ROOTS.add(tree(12, new int[] { 2000 }));
                made += 2000 * 64;
            }
            i++;
        }
        for (int k = 0; k < 3; k++) { System.gc(); Thread.sleep(200); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
