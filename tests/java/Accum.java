// Accum.java — the workload of leak-suspects' accumulations
// (tests/test_accum.c): two classes whose instances together hold far
// more than 10% of the heap while no one object keeps them alive.
//
//   Buf    2000 of them, each with a byte[1024], each reachable only
//          through its own SoftReference (the references in a list):
//          a soft cache, held by 2000 soft holders
//   Item   3000 of them, each with a long[64], each held twice: by its
//          own Owner (the Owners in a list that Accum's static holds) and
//          by one Object[] that another class's static holds; two GC
//          roots' paths meet at no object, so nothing below the root
//          keeps them: 3001 strong holders, 3000 of them Owner.item
//
// Quiet after READY; the soft referents stay (a big heap, no pressure).
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.List;

public class Accum {
    static final class Buf { final byte[] data = new byte[1024]; }
    static final class Item { final long[] payload = new long[64]; }
    static final class Owner {
        final Item item;
        Owner(Item item) { this.item = item; }
    }
    static final class Index { static Object[] ALL; }

    static final List<SoftReference<Buf>> CACHE = new ArrayList<>();
    static final List<Owner> OWNERS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 2000; i++)
            CACHE.add(new SoftReference<>(new Buf()));
        Index.ALL = new Object[3000];
        for (int i = 0; i < 3000; i++) {
            Item it = new Item();
            OWNERS.add(new Owner(it));
            Index.ALL[i] = it;
        }
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }
}
