// Hold.java — `make bench`'s JVM for the cost of a snapshot: about N
// million objects (the argument, default 1.5) held until standard input
// closes; prints "pid P objects M" when ready. A line "stall" prints
// "stall_ms X": the longest a thread of its own was held (a 1 ms sleep
// that took longer) since the last "stall" — a snapshot's pause as the
// process saw it, whoever took the snapshot.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

public class Hold {
    static final class Item { String name; int[] counts; Item next; }

    public static void main(String[] args) throws Exception {
        long target = (long) (Double.parseDouble(args.length > 0 ? args[0] : "1.5") * 1e6), made = 0;
        Map<String, Item> byName = new HashMap<>();
        List<Item> all = new ArrayList<>();
        Item last = null;
        for (int i = 0; made < target; i++) {
            Item it = new Item();
            it.name = "item-" + i;            // String and its byte[]
            it.counts = new int[1 + i % 8];
            it.next = last;
            last = it;
            if (i % 2 == 0) byName.put(it.name, it); else all.add(it); // a HashMap$Node for half
            made += i % 2 == 0 ? 5 : 4;
        }
        System.gc();
        AtomicLong stall = new AtomicLong();
        Thread meter = new Thread(() -> {
            for (;;) {
                long t = System.nanoTime();
                try { Thread.sleep(1); } catch (InterruptedException e) { return; }
                long gap = System.nanoTime() - t;
                stall.accumulateAndGet(gap, Math::max);
            }
        });
        meter.setDaemon(true);
        meter.start();
        System.out.println("pid " + ProcessHandle.current().pid() + " objects " + made);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null)
            if (line.equals("stall")) {
                System.out.println("stall_ms " + stall.getAndSet(0) / 1000000);
                System.out.flush();
            }
        if (byName.size() + all.size() < 0) System.out.println(last);
    }
}
