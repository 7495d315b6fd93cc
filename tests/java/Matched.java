// Matched.java — the workload for matching two ordinary dumps, with the
// truth written into the objects: every Holder has a unique id; the first
// 30000 exist at the first dump, a third of them are freed before the
// second, 10000 more (ids from 100000) are made, and survivors change:
// ids % 10 < 3 count up (their own fields change), ids % 10 == 9 get a
// new name (a new String), ids % 7 == 0 get an element in their list.
// Each Holder's lock (a plain Object), list and int[] are identical in
// content across all Holders: only the graph tells them apart. The 5
// Early objects are gone by the second dump, the 7 Late ones only in it.
// Garbage and full GCs move the survivors between the dumps. Waits for
// the file go1 in the directory given, then for go2.
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class Matched {
    static final class Holder {
        final long id;
        int counter;
        final Object lock = new Object();
        final ArrayList<Object> items = new ArrayList<>();
        String name;
        final int[] data = new int[4];
        Holder(long id) { this.id = id; this.name = "holder-" + id; }
    }
    static final List<Holder> ALL = new ArrayList<>();
    /* a class whose objects are all gone by the second dump, and one
     * that only the second has */
    static final class Early { final int n; Early(int n) { this.n = n; } }
    static final class Late { final int n; Late(int n) { this.n = n; } }
    static final List<Object> PHASE = new ArrayList<>();

    static void await(String dir, String name) throws Exception {
        File f = new File(dir, name);
        while (!f.exists()) Thread.sleep(20);
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (long i = 0; i < 30000; i++) ALL.add(new Holder(i));
        for (int i = 0; i < 5; i++) PHASE.add(new Early(i));
        System.gc();
        System.out.println("READY");
        await(dir, "go1");
        ALL.removeIf(h -> h.id % 3 == 0);
        for (Holder h : ALL) {
            if (h.id % 10 < 3) h.counter += 1 + (int) (h.id % 5);
            if (h.id % 10 == 9) h.name = "renamed-" + h.id;
            if (h.id % 7 == 0) h.items.add(new Object());
        }
        for (long i = 100000; i < 110000; i++) ALL.add(new Holder(i));
        PHASE.clear();
        for (int i = 0; i < 7; i++) PHASE.add(new Late(i));
        for (int r = 0; r < 3; r++) {
            List<byte[]> junk = new ArrayList<>();
            for (int i = 0; i < 50000; i++) junk.add(new byte[64]);
            junk = null;
            System.gc();
        }
        System.out.println("PHASE2");
        await(dir, "go2");
    }
}
