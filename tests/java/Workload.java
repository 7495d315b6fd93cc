// Workload.java — the test workload: a varied heap with a planted leak,
// built once, then quiet (nothing allocates after READY) so that a
// class histogram and a heap dump taken one after the other agree.
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

public class Workload {
    // The leak: listeners registered and never removed keep sessions alive.
    static final class Session {
        final String user;
        final byte[] payload;
        Session(String user, int size) { this.user = user; this.payload = new byte[size]; }
    }
    interface Listener { void changed(); }
    static final class SessionListener implements Listener {
        final Session session;
        SessionListener(Session s) { session = s; }
        public void changed() { }
    }
    static final class LeakRegistry {
        static final List<Listener> LISTENERS = new ArrayList<>();
    }

    // Field packing: mixed primitive sizes, and a subclass after small fields.
    static class Mixed {
        byte b; long l; boolean z; int i; char c; short s; double d; float f; Object ref;
    }
    static class SmallTail { long a; byte tail; }
    static class AfterSmallTail extends SmallTail { int x; short y; Object o; }
    static class OnlyBytes { byte a, b, c; }
    static class Empty { }

    class Inner { int v = 1; }  // holds this$0

    static final Map<String, Object> KEEP = new HashMap<>();
    static final ThreadLocal<byte[]> LOCAL = new ThreadLocal<>();

    static final class ChainNode { ChainNode next; int value; }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 200; i++)
            LeakRegistry.LISTENERS.add(new SessionListener(new Session("user" + i, 1024)));

        List<Object> misc = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Mixed m = new Mixed();
            m.l = i;
            m.ref = "m" + i;
            misc.add(m);
            AfterSmallTail a = new AfterSmallTail();
            a.o = m;
            misc.add(a);
            misc.add(new OnlyBytes());
            misc.add(new Empty());
            misc.add(Integer.valueOf(100000 + i));
            misc.add(Long.valueOf(100000L + i));
        }
        misc.add(new boolean[3]); misc.add(new char[5]); misc.add(new float[7]);
        misc.add(new double[9]); misc.add(new short[11]); misc.add(new int[13]);
        misc.add(new long[15]); misc.add(new byte[17]); misc.add(new Object[19]);
        misc.add("caf\u00e9 \u20ac \u4e2d\u6587");          // UTF-16 string
        misc.add("tab\there\u001b[31mred");                  // control characters
        KEEP.put("misc", misc);

        Map<Integer, String> map = new HashMap<>();
        for (int i = 0; i < 5000; i++) map.put(i, "value" + i);
        KEEP.put("map", map);
        Map<String, int[]> chm = new ConcurrentHashMap<>();
        for (int i = 0; i < 500; i++) chm.put("k" + i, new int[i % 10]);
        KEEP.put("chm", chm);
        LinkedList<Integer> ll = new LinkedList<>();
        for (int i = 0; i < 1000; i++) ll.add(i);
        KEEP.put("linked", ll);

        ChainNode head = null;
        for (int i = 0; i < 100000; i++) { ChainNode n = new ChainNode(); n.value = i; n.next = head; head = n; }
        KEEP.put("chain", head);

        byte[] weakOnly = new byte[4096];
        KEEP.put("weak", new WeakReference<>(weakOnly));
        KEEP.put("soft", new SoftReference<>(new byte[8192]));
        KEEP.put("inner", new Workload().new Inner());
        LOCAL.set(new byte[2048]);
        KEEP.put("local", LOCAL.get());

        CountDownLatch never = new CountDownLatch(1);
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                Object held = new int[64];
                try { never.await(); } catch (InterruptedException e) { }
                KEEP.size();
                held.hashCode();
            }, "parked-" + i);
            t.setDaemon(true);
            t.start();
        }
        // let cleaners and reference processing settle before READY
        for (int i = 0; i < 3; i++) { System.gc(); Thread.sleep(200); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        never.await();
    }
}
