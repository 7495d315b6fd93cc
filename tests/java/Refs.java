// Refs.java — the workload of the References inspections (tests/test_rules.c):
// objects that only a SoftReference, a WeakReference, a PhantomReference or
// the JVM's finalizer reaches, with counts the test knows. The dump is taken
// with `jcmd GC.heap_dump -all` (no GC first, which would clear the weak and
// phantom referents), so nothing may start a GC before it: a small program
// in a big young generation.
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

public class Refs {
    static final class SoftOnly { final int[] data = new int[10]; }
    static final class WeakOnly { final int[] data = new int[20]; }
    static final class PhantomOnly { }
    static final class WeakButHeld { }
    // finalize() is deprecated, but it is what FinalReference is about
    @SuppressWarnings({"deprecation", "removal"})
    static final class Finalizable {
        final int n;
        Finalizable(int n) { this.n = n; }
        // not empty: HotSpot registers no finalizer for an empty finalize()
        @Override protected void finalize() { FINALIZED++; }
    }

    static volatile int FINALIZED;
    static final List<Object> REFS = new ArrayList<>();
    static final List<Object> HELD = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();

    public static void main(String[] args) throws Exception {
        plant();
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }

    static void plant() {
        for (int i = 0; i < 3; i++)
            REFS.add(new SoftReference<>(new SoftOnly()));
        for (int i = 0; i < 4; i++)
            REFS.add(new WeakReference<>(new WeakOnly()));
        for (int i = 0; i < 5; i++)
            REFS.add(new PhantomReference<>(new PhantomOnly(), QUEUE));
        for (int i = 0; i < 6; i++)
            new Finalizable(i); // only the finalizer's list keeps them
        for (int i = 0; i < 2; i++)
            HELD.add(new Finalizable(100 + i)); // finalizable, but strongly held
        WeakButHeld w = new WeakButHeld();
        HELD.add(w);
        REFS.add(new WeakReference<>(w));
        // a soft reference to a weakly reachable object: soft wins
        WeakOnly both = new WeakOnly();
        REFS.add(new WeakReference<>(both));
        REFS.add(new SoftReference<>(both));
    }
}
