// Colls.java — the workload of test_jcoll.c: JDK collections whose
// sizes, capacities and bucket layouts are known by construction, each
// kept in a static field of Colls, and two collections corrupted through
// reflection into loops (run with --add-opens java.base/java.util=
// ALL-UNNAMED). Quiet after READY.
//
// Keys of class K hash to what they are given: HashMap, WeakHashMap and
// ConcurrentHashMap spread a hash below 2^7 to itself, so K(h) goes to
// bucket h mod capacity; Hashtable takes (h & 0x7fffffff) mod capacity.
import java.lang.reflect.Field;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;

public class Colls {
    static final class K implements Comparable<K> {
        final int id, h;
        K(int id, int h) { this.id = id; this.h = h; }
        @Override public int hashCode() { return h; }
        @Override public boolean equals(Object o) { return o instanceof K && ((K) o).id == id; }
        @Override public int compareTo(K o) { return Integer.compare(id, o.id); }
    }

    // Field access: own fields of several types, inherited ones, and one
    // (bi) that the subclass hides.
    static class Base { long bl = 0x1122334455667788L; int bi = -5; Object bo = "base"; }
    static class Plain extends Base {
        byte pb = -3; char pc = 'x'; short ps = -300; boolean pz = true; int pi = 123456;
        Object po = "plain"; double pd = 2.5; float pf = 1.5f; int bi = 77;
    }

    static Plain PLAIN = new Plain();
    static ArrayList<Object> AL = new ArrayList<>(100);       // 7: Integer 1000..1006
    static ArrayList<Object> AL_EMPTY = new ArrayList<>();     // shared empty array
    static Vector<Object> VEC = new Vector<>();                // 3 of 10
    static Stack<Object> STACK = new Stack<>();                // 4 of 10
    static ArrayDeque<Object> DEQUE = new ArrayDeque<>();      // 8 of 17, wrapped
    static LinkedList<Object> LL = new LinkedList<>();         // "ll0".."ll9"
    static HashMap<Object, Object> HM_COLL = new HashMap<>();  // 12 of 16, buckets 3,2,1x7
    static HashMap<Object, Object> HM_TREE = new HashMap<>(64);// a tree bin of 10, 3 more
    static HashMap<Object, Object> HM_EMPTY = new HashMap<>(); // no table
    static HashMap<Object, Object> HM_13 = new HashMap<>();    // 13 -> resized to 32
    static LinkedHashMap<Object, Object> LHM = new LinkedHashMap<>(); // 5 of 16
    static HashSet<Object> HS = new HashSet<>();               // Integer 0..19: 32
    static LinkedHashSet<Object> LHS = new LinkedHashSet<>();  // 3 strings
    static Hashtable<Object, Object> HT = new Hashtable<>();   // 5 of 11, buckets 3,1,1
    static Properties PROPS = new Properties();                // 4 strings
    static WeakHashMap<Object, Object> WHM = new WeakHashMap<>(); // 5 of 16, buckets 2,1,1,1
    static Object[] WHM_KEYS = new Object[5];                  // keep its keys
    static IdentityHashMap<Object, Object> IHM = new IdentityHashMap<>(); // 5 + null key
    static TreeMap<Object, Object> TM = new TreeMap<>();       // Integer 0..49 -> "t"+i
    static TreeSet<Object> TS = new TreeSet<>();               // 7 strings
    static ConcurrentHashMap<Object, Object> CHM = new ConcurrentHashMap<>(); // 1000 -> 2048
    static ConcurrentHashMap<Object, Object> CHM_TREE = new ConcurrentHashMap<>(64); // 128
    static CopyOnWriteArrayList<Object> COW = new CopyOnWriteArrayList<>();
    static CopyOnWriteArraySet<Object> COWSET = new CopyOnWriteArraySet<>();
    static ConcurrentLinkedQueue<Object> CLQ = new ConcurrentLinkedQueue<>();
    static List<Object> UNMOD_LIST;
    static Map<Object, Object> SYNC_MAP;
    static Set<Object> UNMOD_SET;
    static List<Object> SYNC_LIST;
    static Object[] ARR = new Object[10];
    static LinkedList<Object> LL_LOOP = new LinkedList<>();    // last.next = first
    static HashMap<Object, Object> HM_LOOP = new HashMap<>();  // a bucket chain in a loop

    static void set(Object o, Class<?> c, String name, Object value) throws Exception {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        f.set(o, value);
    }
    static Object get(Object o, Class<?> c, String name) throws Exception {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 7; i++) AL.add(Integer.valueOf(1000 + i));
        for (int i = 0; i < 3; i++) VEC.add("vec" + i);
        for (int i = 0; i < 4; i++) STACK.push("stack" + i);
        for (int i = 0; i < 5; i++) DEQUE.addLast("dq" + i);
        for (int i = 5; i < 8; i++) DEQUE.addFirst("dq" + i);
        for (int i = 0; i < 10; i++) LL.add("ll" + i);

        int[] hashes = { 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8 };
        for (int i = 0; i < hashes.length; i++) HM_COLL.put(new K(i, hashes[i]), "v" + i);
        for (int i = 0; i < 10; i++) HM_TREE.put(new K(i, 5), "t" + i);
        for (int i = 10; i < 13; i++) HM_TREE.put(new K(i, i - 9), "t" + i);
        for (int i = 0; i < 13; i++) HM_13.put(Integer.valueOf(i + 2000), "h" + i);
        for (int i = 0; i < 5; i++) LHM.put(Integer.valueOf(i + 3000), "l" + i);
        for (int i = 0; i < 20; i++) HS.add(Integer.valueOf(i + 4000));
        LHS.add("lhs-a"); LHS.add("lhs-b"); LHS.add("lhs-c");
        int[] th = { 0, 11, 22, 1, 2 };
        for (int i = 0; i < th.length; i++) HT.put(new K(i, th[i]), "ht" + i);
        for (int i = 0; i < 4; i++) PROPS.setProperty("pk" + i, "pv" + i);
        int[] wh = { 0, 0, 1, 2, 3 };
        for (int i = 0; i < wh.length; i++) {
            WHM_KEYS[i] = new K(i, wh[i]);
            WHM.put(WHM_KEYS[i], "w" + i);
        }
        for (int i = 0; i < 5; i++) IHM.put("ik" + i, "iv" + i);
        IHM.put(null, "iv-null");
        for (int i = 0; i < 50; i++) TM.put(Integer.valueOf(i + 5000), "t" + i);
        for (int i = 0; i < 7; i++) TS.add("ts" + i);
        for (int i = 0; i < 1000; i++) CHM.put(Integer.valueOf(i), "c" + i);
        for (int i = 0; i < 10; i++) CHM_TREE.put(new K(i, 7), "ct" + i);
        for (int i = 10; i < 12; i++) CHM_TREE.put(new K(i, i - 9), "ct" + i);
        for (int i = 0; i < 4; i++) COW.add("cow" + i);
        for (int i = 0; i < 3; i++) COWSET.add("cs" + i);
        for (int i = 0; i < 8; i++) CLQ.add("q" + i);
        CLQ.poll();
        CLQ.poll();
        UNMOD_LIST = Collections.unmodifiableList(new ArrayList<>(List.of("u0", "u1", "u2")));
        Map<Object, Object> sm = new HashMap<>();
        sm.put("s0", "sv0");
        sm.put("s1", "sv1");
        SYNC_MAP = Collections.synchronizedMap(sm);
        UNMOD_SET = Collections.unmodifiableSet(new HashSet<>(List.of("us0", "us1")));
        SYNC_LIST = Collections.synchronizedList(new LinkedList<>(List.of("sl0", "sl1", "sl2", "sl3")));
        ARR[1] = "a1"; ARR[4] = "a4"; ARR[5] = "a5"; ARR[9] = "a9";

        // the corrupt ones
        for (int i = 0; i < 5; i++) LL_LOOP.add("loop" + i);
        Class<?> lln = Class.forName("java.util.LinkedList$Node");
        set(get(LL_LOOP, LinkedList.class, "last"), lln, "next", get(LL_LOOP, LinkedList.class, "first"));
        for (int i = 0; i < 3; i++) HM_LOOP.put(new K(i, 0), "hl" + i);
        Object[] table = (Object[]) get(HM_LOOP, HashMap.class, "table");
        Class<?> hn = Class.forName("java.util.HashMap$Node");
        Object n = table[0];
        while (get(n, hn, "next") != null) n = get(n, hn, "next");
        set(n, hn, "next", table[0]);

        for (int i = 0; i < 3; i++) { System.gc(); Thread.sleep(100); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
