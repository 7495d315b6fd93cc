// Retain.java — the workload of the Retention, Class loaders and Search
// inspections (tests/test_retain.c): one planted instance of each
// problem, with sizes known by construction, then quiet after READY.
//
//   thread-locals      thread "heapwalk-retain-local" holds, in a
//                      ThreadLocal, a Local with a byte[1000000]
//   thread-stacks      thread "heapwalk-retain-stack" sleeps in
//                      holdStack() with a StackHeld (byte[300000]) and
//                      an int[4321] in local variables
//   outer-instances    an Outer (with a byte[50000]) held only by its
//                      Inner's this$0
//   leak-suspects      Leak.LIST: an ArrayList of 400 byte[50000], far
//                      over 20% of the heap; its elementData is the
//                      accumulation point
//   class-loaders,     Dup loaded again by a ByteLoader, which makes 3
//   duplicate-classes  instances (the app loader's Dup: 2)
//   string-regex       "token=SECRET-1234" x3, "token=SECRET-5678",
//                      and two that need decoding (Latin-1, UTF-16)
//   largest-arrays     long[300001], int[400003], char[600011] held by
//                      main's locals
//   long-chains        a list of 5000 Nodes, a ring of 1500 Rings
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

public class Retain {
    static final class Local { final byte[] bytes = new byte[1_000_000]; }
    static final ThreadLocal<Local> LOCAL = new ThreadLocal<>();

    static final class StackHeld { final byte[] bytes = new byte[300_000]; }

    static final class Outer {
        final byte[] state = new byte[50_000];
        final class Inner { int v = 1; }
    }
    static Object INNER = new Outer().new Inner();

    static final class Leak { static final List<byte[]> LIST = new ArrayList<>(400); }

    public static final class Dup { public int x = 7; }
    static final class ByteLoader extends ClassLoader {
        ByteLoader() { super(null); }
        Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
    }
    static final List<Object> DUPS = new ArrayList<>();
    static ByteLoader LOADER;

    static final List<String> TOKENS = new ArrayList<>();
    static int seed = 1234;

    static final class Node { Node next; int v; }
    static final class Ring { Ring next; int v; }
    static Node HEAD;
    static Ring RING;

    static volatile boolean stop;

    static void holdStack(CountDownLatch ready) throws InterruptedException {
        StackHeld held = new StackHeld();
        int[] ints = new int[4321];
        ready.countDown();
        while (!stop)
            Thread.sleep(100_000); // STACK-FRAME-LINE
        System.out.println(held.bytes.length + ints.length);
    }

    static byte[] classBytes(String res) throws Exception {
        try (InputStream in = Retain.class.getResourceAsStream(res)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) > 0; )
                out.write(buf, 0, n);
            return out.toByteArray();
        }
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch ready = new CountDownLatch(2);
        Thread local = new Thread(() -> {
            LOCAL.set(new Local());
            ready.countDown();
            while (!stop) {
                try { Thread.sleep(100_000); } catch (InterruptedException e) { return; }
            }
        }, "heapwalk-retain-local");
        local.setDaemon(true);
        local.start();
        Thread stack = new Thread(() -> {
            try { holdStack(ready); } catch (InterruptedException e) { }
        }, "heapwalk-retain-stack");
        stack.setDaemon(true);
        stack.start();

        for (int i = 0; i < 400; i++)
            Leak.LIST.add(new byte[50_000]);

        DUPS.add(new Dup());
        DUPS.add(new Dup());
        LOADER = new ByteLoader();
        Class<?> again = LOADER.define("Retain$Dup", classBytes("Retain$Dup.class"));
        for (int i = 0; i < 3; i++)
            DUPS.add(again.getConstructor().newInstance());

        for (int i = 0; i < 3; i++)
            TOKENS.add("token=SECRET-" + seed);
        TOKENS.add("token=SECRET-" + (seed + 4444));
        TOKENS.add("token=SECRET-" + (seed + 7654) + " caf\u00e9");
        TOKENS.add("token=SECRET-" + (seed + 8765) + " \u20ac");

        for (int i = 0; i < 5000; i++) {
            Node n = new Node();
            n.v = i;
            n.next = HEAD;
            HEAD = n;
        }
        Ring first = new Ring(), last = first;
        for (int i = 1; i < 1500; i++) {
            Ring r = new Ring();
            r.v = i;
            last.next = r;
            last = r;
        }
        last.next = first;
        RING = first;

        long[] longs = new long[300_001];
        int[] ints = new int[400_003];
        char[] chars = new char[600_011];
        ready.await();
        for (int k = 0; k < 3; k++) { System.gc(); Thread.sleep(200); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        while (!stop)
            Thread.sleep(100_000);
        System.out.println(longs.length + ints.length + chars.length);
    }
}
