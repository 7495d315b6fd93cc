// Mutated.java — the workload for matching an agent snapshot against an
// ordinary dump of the same JVM (tests/mutated-run.sh): 200 Counter
// objects in a list (an Object[], a class the JVM has from its start),
// each with its own value (i), and 200 Keep objects in an array. After go1, the first 100 counters count up by
// 1000 in place: the same objects, with contents no object had before.
// Nothing is made or freed in the list (the truth: no Counter new or
// gone). Waits for the file go1 in the directory given, then for go2.
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class Mutated {
    static final class Counter { int v; Counter(int v) { this.v = v; } }
    static final class Keep { final int n; Keep(int n) { this.n = n; } }
    static final List<Counter> COUNTERS = new ArrayList<>();
    static final Keep[] KEEP = new Keep[200];

    static void await(String dir, String name) throws Exception {
        File f = new File(dir, name);
        while (!f.exists()) Thread.sleep(20);
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (int i = 0; i < 200; i++) {
            COUNTERS.add(new Counter(i));
            KEEP[i] = new Keep(i);
        }
        System.gc();
        System.out.println("READY");
        await(dir, "go1");
        for (int i = 0; i < 100; i++) COUNTERS.get(i).v += 1000;
        System.gc();
        System.out.println("PHASE2");
        await(dir, "go2");
    }
}
