// Leaky.java — the workload for heapwalk leaks on a JVM: three snapshots
// around an action that leaks a known set. After READY (base), "go1"
// runs the action: 300 Leaked objects (named "leak-N") that a listener
// registry made at the start keeps, 400 Freed in a cache, 500 Transient
// dropped at once; PHASE2 (target). "go2" undoes it: the cache cleared,
// the registry forgotten (the leak); PHASE3 (final). The action and the
// undo run once before READY, so that their classes and code are there.
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Leaky {
    static final class Payload { final byte[] data; Payload(int i) { data = new byte[64 + i % 16]; } }
    static final class Leaked { final String name; final Payload payload; Leaked(int i) { name = "leak-" + i; payload = new Payload(i); } }
    static final class Freed { final int id; final long[] pad = new long[4]; Freed(int i) { id = i; } }
    static final class Transient { final int id; Transient(int i) { id = i; } }

    static final List<Object> listeners = new ArrayList<>(1000);
    static final Map<Integer, Freed> cache = new HashMap<>(2048);
    static volatile Object sink;

    static void action(int round) {
        for (int i = 0; i < 300; i++) listeners.add(new Leaked(round == 0 ? -1 - i : i));
        for (int i = 0; i < 400; i++) cache.put(i, new Freed(i));
        List<Transient> t = new ArrayList<>();
        for (int i = 0; i < 500; i++) t.add(new Transient(i));
        sink = t.size();
    }

    static void undo() { cache.clear(); }

    static void await(String dir, String name) throws Exception {
        File f = new File(dir, name);
        while (!f.exists()) Thread.sleep(20);
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        action(0);
        undo();
        listeners.clear();
        System.gc();
        System.out.println("READY");
        await(dir, "go1");
        action(1);
        System.gc();
        System.out.println("PHASE2");
        await(dir, "go2");
        undo();
        System.gc();
        System.out.println("PHASE3");
        await(dir, "go3");
    }
}
