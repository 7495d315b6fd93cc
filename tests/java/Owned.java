// Owned.java — the workload of the rules tests (tests/test_rules.c): small
// object graphs whose dominators are known by hand, with and without the
// rules the test writes. Everything hangs off static fields of Owned, so
// without rules the class Owned dominates every object shared between
// two of them. Each object carries an id so the test can find it.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

public class Owned {
    static final class Item {
        final int id;
        final byte[] payload = new byte[1000];
        Item(int id) { this.id = id; }
    }
    static final class Owner { final int id; Item item; Owner(int id) { this.id = id; } }
    static final class Boss { Item item; }
    static final class Registry { final Object[] slots = new Object[4]; }
    static final class Parent { Child child; }
    static final class Child { Parent parent; }
    static final class Cache { final HashMap<String, Item> map = new HashMap<>(); }

    // A: item 1, held by owner 1 and by the registry's slot 0
    static Owner owner1;
    static Registry registry = new Registry();
    // B: a child whose parent is reachable only through the back link
    static Child child;
    // C: items 100..104 in a cache's map, also in a plain list
    static Cache cache = new Cache();
    static List<Item> all = new ArrayList<>();
    // D: item 2 held by owners 2 and 3 (equal weight: ambiguous)
    static Owner owner2, owner3;
    // E: item 3 held by owner 4 (weight 1) and by the boss (weight 10)
    static Owner owner4;
    static Boss boss = new Boss();
    // F: item 4, held by owner 5 that only a reference the rules call
    // weak reaches (Backup.owner), and by the registry's slot 1
    static final class Backup { Owner owner; }
    static Backup backup = new Backup();
    // G: a WeakHashMap whose value is its own key (the classic leak): the
    // entry's referent is weak, its value strong, so the key stays
    // strongly reachable, dominated by its entry
    static final class SelfKey { }
    static java.util.WeakHashMap<Object, Object> selfKeyed = new java.util.WeakHashMap<>();

    public static void main(String[] args) throws Exception {
        plant(); // in a method of its own: no local variable stays a GC root
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }

    static void plant() {
        owner1 = new Owner(1);
        owner1.item = new Item(1);
        registry.slots[0] = owner1.item;

        Parent p = new Parent();
        child = new Child();
        p.child = child;
        child.parent = p;

        for (int i = 100; i < 105; i++) {
            Item it = new Item(i);
            cache.map.put("k" + i, it);
            all.add(it);
        }

        owner2 = new Owner(2);
        owner3 = new Owner(3);
        owner2.item = owner3.item = new Item(2);

        owner4 = new Owner(4);
        owner4.item = boss.item = new Item(3);

        backup.owner = new Owner(5);
        backup.owner.item = new Item(4);
        registry.slots[1] = backup.owner.item;

        SelfKey k = new SelfKey();
        selfKeyed.put(k, k);
    }
}
