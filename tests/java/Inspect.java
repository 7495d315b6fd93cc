// Inspect.java — the workload of tests/test_inspect.c: one planted
// instance of each Waste problem (src/query/inspect.h), with counts and
// values of its own so that nothing of the JDK's looks like it. All of
// it hangs off one Holder instance (the only thing the class's static
// refers to), so that "instances Inspect$Holder | retained" is exactly
// the planted objects; every number below is what the test expects.
// Distinctive strings are built at run time, never as literals, so no
// interned copy joins their groups. Quiet after READY (gen-dump.sh).
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;

public class Inspect {
    static final class Plant { }
    // Equal keys only by id; the hash code is chosen by the planter.
    static final class Key {
        final int id, hash;
        Key(int id, int hash) { this.id = id; this.hash = hash; }
        @Override public int hashCode() { return hash; }
        @Override public boolean equals(Object o) { return o instanceof Key && ((Key) o).id == id; }
    }
    static final class Rare { Object rarelySet; Object always; }
    static final class Rare2 { Object a; Object b; }
    static final class Rare3 { Object x; }

    static final class Holder {
        String[] dupStrings;      // 37 equal values, each its own byte[]
        String[] sharedStrings;   // 5 equal values sharing one byte[]
        int[][] dupArrays;        // 11 equal int[1000]
        Plant[][] zeroPlants;     // 23 Plant[0]
        long[][] zeroLongs;       // 6 long[0]
        Plant[][] sparsePlants;   // 5 x Plant[100] 90 null, Plant[8] 6 null;
                                  // not sparse: Plant[8] 5 null, Plant[7] all null
        double[][] sparseDoubles; // 3 x double[64], 4 non-zero each (all different)
        ArrayList<?>[] emptyLists;   // 13 new ArrayList<>(), 4 new ArrayList<>(16)
        HashMap<?, ?>[] emptyMaps;   // 7 new HashMap<>()
        HashSet<?>[] emptySets;      // 3 new HashSet<>()
        ArrayList<?>[] underFilled;  // 3 new ArrayList<>(1000) with 3 elements
        HashMap<Key, Plant> collide; // 8 keys, one hash code: one bucket of 16
        HashMap<Key, Plant> spread;  // 10 keys, hash codes 0..9: no collision
        Rare[] rare;              // 200, rarelySet null in 190
        Rare2[] rare2;            // 100, a null in 89, b null in 90
        Rare3[] rare3;            // 99, x null in all (too few to count)
        Integer[] ints;           // 50, 1_000_000 + i
        Long[] longs;             // 20, 5_000_000_000 + i
    }

    static Holder HOLDER;

    static String text(String prefix, int n) {
        return new StringBuilder(prefix).append(n).toString(); // no literal for the whole
    }

    static Holder plant() {
        Holder h = new Holder();
        Plant p = new Plant();
        h.dupStrings = new String[37];
        for (int i = 0; i < 37; i++)
            h.dupStrings[i] = text("heapwalk-dup-", 37);
        h.sharedStrings = new String[5];
        h.sharedStrings[0] = text("heapwalk-shared-", 5);
        for (int i = 1; i < 5; i++)
            h.sharedStrings[i] = new String(h.sharedStrings[0]); // shares its value array
        h.dupArrays = new int[11][];
        for (int i = 0; i < 11; i++) {
            h.dupArrays[i] = new int[1000];
            for (int k = 0; k < 1000; k++)
                h.dupArrays[i][k] = k * 7919 ^ 0x5eed;
        }
        h.zeroPlants = new Plant[23][];
        for (int i = 0; i < 23; i++)
            h.zeroPlants[i] = new Plant[0];
        h.zeroLongs = new long[6][];
        for (int i = 0; i < 6; i++)
            h.zeroLongs[i] = new long[0];
        h.sparsePlants = new Plant[8][];
        for (int i = 0; i < 5; i++) {
            h.sparsePlants[i] = new Plant[100];
            for (int k = 0; k < 10; k++)
                h.sparsePlants[i][k * 10] = p;
        }
        h.sparsePlants[5] = new Plant[8];
        h.sparsePlants[5][0] = h.sparsePlants[5][7] = p;
        h.sparsePlants[6] = new Plant[8];
        h.sparsePlants[6][0] = h.sparsePlants[6][1] = h.sparsePlants[6][7] = p;
        h.sparsePlants[7] = new Plant[7];
        h.sparseDoubles = new double[3][];
        for (int i = 0; i < 3; i++) {
            h.sparseDoubles[i] = new double[64];
            for (int k = 0; k < 4; k++)
                h.sparseDoubles[i][k * 16] = i * 100 + k + 0.5;
        }
        h.emptyLists = new ArrayList<?>[17];
        for (int i = 0; i < 13; i++)
            h.emptyLists[i] = new ArrayList<Object>();
        for (int i = 13; i < 17; i++)
            h.emptyLists[i] = new ArrayList<Object>(16);
        h.emptyMaps = new HashMap<?, ?>[7];
        for (int i = 0; i < 7; i++)
            h.emptyMaps[i] = new HashMap<Object, Object>();
        h.emptySets = new HashSet<?>[3];
        for (int i = 0; i < 3; i++)
            h.emptySets[i] = new HashSet<Object>();
        h.underFilled = new ArrayList<?>[3];
        for (int i = 0; i < 3; i++) {
            ArrayList<Plant> l = new ArrayList<>(1000);
            for (int k = 0; k < 3; k++)
                l.add(p);
            h.underFilled[i] = l;
        }
        h.collide = new HashMap<>();
        for (int i = 0; i < 8; i++) // 8 in a bin: no treeification (that needs 9)
            h.collide.put(new Key(i, 0x4242), p);
        h.spread = new HashMap<>();
        for (int i = 0; i < 10; i++)
            h.spread.put(new Key(i, i), p);
        h.rare = new Rare[200];
        for (int i = 0; i < 200; i++) {
            h.rare[i] = new Rare();
            h.rare[i].always = p;
            if (i % 20 == 0)
                h.rare[i].rarelySet = p;
        }
        h.rare2 = new Rare2[100];
        for (int i = 0; i < 100; i++) {
            h.rare2[i] = new Rare2();
            if (i < 11)
                h.rare2[i].a = p;
            if (i < 10)
                h.rare2[i].b = p;
        }
        h.rare3 = new Rare3[99];
        for (int i = 0; i < 99; i++)
            h.rare3[i] = new Rare3();
        h.ints = new Integer[50];
        for (int i = 0; i < 50; i++)
            h.ints[i] = Integer.valueOf(1_000_000 + i);
        h.longs = new Long[20];
        for (int i = 0; i < 20; i++)
            h.longs[i] = Long.valueOf(5_000_000_000L + i);
        return h;
    }

    public static void main(String[] args) throws Exception {
        HOLDER = plant(); // built in a method of its own: main's frame holds none of it
        for (int i = 0; i < 3; i++) { System.gc(); Thread.sleep(200); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
