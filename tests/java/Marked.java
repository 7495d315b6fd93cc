// Marked.java — the workload for the agent tests, with ground truth for
// old and new: heapwalk marks it after READY; everything it allocates
// after "go1" is new. OldThing i < 5000 existed at the mark, OldThing
// i >= 5000 did not (same class, so only identity tells them apart);
// every NewThing is new; the Doomed and their arrays are freed. Full GCs
// with garbage in between move the survivors. Then it is quiet.
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class Marked {
    static final class OldThing {
        final int id; final String name; long big;
        OldThing(int i) { id = i; name = "thing" + i; big = i * 3L; }
    }
    static final class NewThing {
        final int id; final Object ref;
        NewThing(int i, Object r) { id = i; ref = r; }
    }
    static final class Doomed {
        final int id; final byte[] pad = new byte[64];
        Doomed(int i) { id = i; }
    }
    static final List<Object> KEEP = new ArrayList<>();
    static List<Object> doomed = new ArrayList<>();

    static void await(String dir, String name) throws Exception {
        File f = new File(dir, name);
        while (!f.exists()) Thread.sleep(20);
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (int i = 0; i < 5000; i++) KEEP.add(new OldThing(i));
        for (int i = 0; i < 2000; i++) doomed.add(new Doomed(i));
        System.out.println("READY");
        await(dir, "go1");
        doomed = null;
        for (int i = 0; i < 3000; i++) KEEP.add(new NewThing(i, KEEP.get(i)));
        for (int i = 5000; i < 6500; i++) KEEP.add(new OldThing(i));
        for (int r = 0; r < 3; r++) {
            List<byte[]> junk = new ArrayList<>();
            for (int i = 0; i < 20000; i++) junk.add(new byte[100]);
            junk = null;
            System.gc();
        }
        System.out.println("PHASE2");
        await(dir, "go2");
    }
}
