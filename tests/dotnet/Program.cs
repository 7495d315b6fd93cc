// Program.cs — known objects in a .NET heap, for heapwalk's snapshot
// tests: a leaking event-handler list (listeners registered and never
// removed), an array on the large object heap, a pinned buffer, an
// array on the pinned object heap, objects waiting for finalization, a
// static cache, a weak GC handle, values attached to keys by a
// ConditionalWeakTable (dependent handles). Prints one JSON line: its
// pid and how many of each it made; then waits until its standard input
// closes (the test takes its snapshots meanwhile), or, with an argument
// "grow", makes AddedHolder objects on each line read. With "mark" (the
// .NET mark's test): on its first line read (sent after heapwalk mark)
// it drops some of its objects made before, makes new ones, moves all
// by compacting collections, and prints how many of each kind live
// (the objects it holds; OldItem.Next holds only OldItems kept all along):
// objects before the mark are Workload.OldItem and Mark[3] (Mark[20000]
// on the large object heap), after it NewItem and Mark[5] (Mark[30000]),
// so that which objects are new is known by kind and size alone. "mark
// bgc" (concurrent GC on) also makes Mark[20000] arrays every 500 old
// items, runs a background GC before the mark (the runtime starts its
// thread), and after its compacting collections drops old items and
// half the old large arrays and has background GCs run until one ran in
// the background, making NewItems and Mark[15000] arrays (new, on the
// large object heap) meanwhile; "small" (after "mark" or "mark bgc")
// makes a tenth as many. With "chains" (long-chains' test) it makes
// instead a list of 1000 Workload.ChainLink through Next and one of 300
// Workload.DLink linked both ways (Next, Prev), counts them by walking
// them, prints {"pid":N,"ChainLink":1000,"DLink":300} and waits until its
// standard input closes.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Workload
{
	class Session
	{
		public byte[] Payload = new byte[256];
		public void OnTick(object sender, EventArgs e) { }
	}

	class Publisher
	{
		public event EventHandler Tick;
		public int Count => Tick == null ? 0 : Tick.GetInvocationList().Length;
	}

	class CacheEntry
	{
		public string Key;
		public long Value;
	}

	class Finalizable
	{
		public int Id;
		~Finalizable() { GC.KeepAlive(this); }
	}

	class WeakTarget
	{
		public int Id;
	}

	class Key
	{
		public int Id;
	}

	class Attached
	{
		public long[] Data = new long[8];
	}

	class AddedHolder
	{
		public int[] Held = new int[4];
	}

	// "names": types whose names are not ASCII, two of them alike but
	// for one letter
	class Käse
	{
		public int V;
	}

	class Köse
	{
		public long V;
	}

	class 数据
	{
		public short V;
	}

	// and two generic types 40 deep whose names (over 1500 bytes) differ
	// only in the innermost argument
	class DeepGenericNameHolderPadding<T>
	{
		public T V;
	}

	static class Named
	{
		static readonly List<object> keep = new List<object>();

		// Every lambdas' class "<>c" (not generic) of every assembly
		// loaded, its one instance made (its static constructor run):
		// "Lambdas":{"FILE.dll":N,...}, N the module's such classes, each
		// with one instance. The runtime names them all "<>c".
		static string Lambdas()
		{
			var byModule = new SortedDictionary<string, int>(StringComparer.Ordinal);
			foreach (var asm in AppDomain.CurrentDomain.GetAssemblies()) {
				Type[] types;
				try {
					types = asm.GetTypes();
				} catch (System.Reflection.ReflectionTypeLoadException e) {
					types = e.Types;
				}
				foreach (var t in types) {
					if (t == null || t.Name != "<>c" || t.ContainsGenericParameters)
						continue;
					RuntimeHelpers.RunClassConstructor(t.TypeHandle);
					byModule.TryGetValue(t.Module.Name, out int n);
					byModule[t.Module.Name] = n + 1;
				}
			}
			var sb = new System.Text.StringBuilder("\"Lambdas\":{");
			foreach (var kv in byModule)
				sb.Append(sb.Length > 11 ? "," : "").Append('"').Append(kv.Key).Append("\":").Append(kv.Value);
			return sb.Append('}').ToString();
		}

		static Type Deep(Type inner)
		{
			for (int i = 0; i < 40; i++)
				inner = typeof(DeepGenericNameHolderPadding<>).MakeGenericType(inner);
			return inner;
		}

		public static int Run()
		{
			for (int i = 0; i < 100; i++)
				keep.Add(new Käse());
			for (int i = 0; i < 200; i++)
				keep.Add(new Köse());
			for (int i = 0; i < 300; i++)
				keep.Add(new 数据());
			Type deepInt = Deep(typeof(int)), deepLong = Deep(typeof(long));
			for (int i = 0; i < 10; i++)
				keep.Add(Activator.CreateInstance(deepInt));
			for (int i = 0; i < 20; i++)
				keep.Add(Activator.CreateInstance(deepLong));
			Console.WriteLine("{\"pid\":" + Environment.ProcessId + ",\"Käse\":100,\"Köse\":200,\"数据\":300" +
					  ",\"DeepInt\":10,\"DeepLong\":20," + Lambdas() + "}");
			Console.Out.Flush();
			Console.ReadLine();
			GC.KeepAlive(keep);
			return 0;
		}
	}

	// "modules": 100 objects of a nested class whose name the runtime
	// gives without its outer class ("Lonely"), then at each line 30
	// more, and at the second 7 of a class of that name a second module
	// has (emitted): a name one module had in the first two dumps and
	// two in the next
	static class Modules
	{
		class Lonely
		{
			public byte[] B;
		}

		static readonly List<object> keep = new List<object>();
		static int made;

		public static int Run()
		{
			for (int i = 0; i < 100; i++)
				keep.Add(new Lonely { B = new byte[8 * made++] }); // each its own, by its array's size
			Console.WriteLine("{\"pid\":" + Environment.ProcessId + ",\"Lonely\":100}");
			Console.Out.Flush();
			Type other = null;
			for (int n = 130; Console.ReadLine() != null; n += 30) {
				for (int i = 0; i < 30; i++)
					keep.Add(new Lonely { B = new byte[8 * made++] }); // each its own, by its array's size
				if (other == null && n > 130) {
					var asm = System.Reflection.Emit.AssemblyBuilder.DefineDynamicAssembly(
						new System.Reflection.AssemblyName("Emitted"),
						System.Reflection.Emit.AssemblyBuilderAccess.Run);
					var tb = asm.DefineDynamicModule("Emitted").DefineType("Lonely",
						System.Reflection.TypeAttributes.Public | System.Reflection.TypeAttributes.Class);
					tb.DefineField("V", typeof(long), System.Reflection.FieldAttributes.Public);
					other = tb.CreateType();
					for (int i = 0; i < 7; i++)
						keep.Add(Activator.CreateInstance(other));
				}
				Console.WriteLine("{\"Lonely\":" + n + ",\"Emitted\":" + (other == null ? 0 : 7) + "}");
				Console.Out.Flush();
			}
			GC.KeepAlive(keep);
			return 0;
		}
	}

	struct Mark
	{
		public long V;
	}

	class OldItem
	{
		public Mark[] Data = new Mark[3];
		public object Next;
	}

	class NewItem
	{
		public Mark[] Data = new Mark[5];
		public object Next;
	}

	static class Marked
	{
		static int Olds = 20000, News = 5000;
		static readonly List<object> items = new List<object>();
		static readonly List<OldItem> keep = new List<OldItem>(); // never dropped: what new ones refer to
		static readonly List<object> garbage = new List<object>();

		// Background GCs asked for (concurrent GC on) until one ran in the
		// background (the runtime may run one blocking, compacting, when
		// it cannot start it: GCMemoryInfo.Compacted), with allocation
		// while it runs and `after` allocations past it: garbage and, with
		// make, new objects kept, some on the large object heap
		// (promoted or placed while it runs; Mark[15000] may take the
		// place of a Mark[20000] it frees). How many ran in the background.
		static long BackgroundGC(int after, bool make)
		{
			long seen = GC.GetGCMemoryInfo(GCKind.Background).Index, real = 0;
			int kept = 0;
			var hold = new List<byte[]>();
			GC.Collect(2, GCCollectionMode.Forced, false);
			for (int i = 0, n = 0; i < 4000000 && (real == 0 || n < after); i++) {
				var info = GC.GetGCMemoryInfo(GCKind.Background);
				if (info.Index != seen) {
					seen = info.Index;
					real += info.Compacted ? 0 : 1;
				}
				if (real > 0)
					n++;
				hold.Add(new byte[1000]);
				if (hold.Count == 500)
					hold = new List<byte[]>();
				if (i % 100 == 0) // spends the large object heap's budget: what starts them
					GC.KeepAlive(new byte[100000]);
				if (make && kept < News * 4 / 5 && i % 50 == 0) {
					var it = new NewItem();
					it.Next = keep[i % keep.Count];
					items.Add(it);
					kept++;
					if (kept % 10 == 5)
						items.Add(new Mark[15000]);
				}
			}
			System.Threading.Thread.Sleep(300);
			return real;
		}

		static void Collect(int gen)
		{
			System.Runtime.GCSettings.LargeObjectHeapCompactionMode =
				System.Runtime.GCLargeObjectHeapCompactionMode.CompactOnce;
			GC.Collect(gen, GCCollectionMode.Forced, true, true);
		}

		// every k-th of the kept objects dropped, holes the new ones may take
		static void Drop(int k)
		{
			for (int i = items.Count - 1; i >= 0; i -= k)
				items.RemoveAt(i);
		}

		static void Make(int n)
		{
			for (int i = 0; i < n; i++) {
				garbage.Add(new byte[48]); // between them: moved when it is gone
				var it = new NewItem();
				it.Next = keep[i % keep.Count];
				items.Add(it);
			}
			garbage.Clear();
		}

		static string Count()
		{
			int olds = keep.Count, news = 0, oldBig = 0, newBig = 0;
			foreach (var o in items) {
				if (o is OldItem)
					olds++;
				else if (o is NewItem)
					news++;
				else if (o is Mark[] a && a.Length == 20000)
					oldBig++;
				else if (o is Mark[] b && (b.Length == 30000 || b.Length == 15000))
					newBig++;
			}
			return "{\"OldItem\":" + olds + ",\"NewItem\":" + news + ",\"OldBig\":" + oldBig +
			       ",\"NewBig\":" + newBig + "}";
		}

		public static int Run(bool background, bool small)
		{
			if (small) { // for a recorded mark small enough to keep (tests/dotnet/README)
				Olds /= 10;
				News /= 10;
			}
			for (int i = 0; i < Olds; i++) {
				garbage.Add(new byte[64]);
				items.Add(new OldItem());
				if (i % 200 == 0)
					keep.Add(new OldItem { Next = items[i] });
				if (i % 5000 == 0 || (background && i % 500 == 250))
					items.Add(new Mark[20000]);
			}
			garbage.Clear();
			if (background) // a first background GC: the runtime starts its thread (that one may run blocking)
				BackgroundGC(1000, false);
			Collect(2);
			Console.WriteLine("{\"pid\":" + Environment.ProcessId + "}");
			Console.Out.Flush();
			if (Console.ReadLine() == null) // the mark is taken
				return 1;
			Drop(3);
			Make(News / 2);
			items.Add(new Mark[30000]);
			Collect(2); // compacting: everything moves down into the holes
			Drop(7);
			Make(News / 4);
			Collect(0);
			Collect(1);
			Make(News / 4);
			items.Add(new Mark[30000]);
			Drop(11);
			Collect(2);
			long bgcs = 0;
			if (background) {
				Drop(13); // old ones the background GC finds dead, large ones too
				for (int i = 0, big = 0; i < items.Count; i++)
					if (items[i] is Mark[] a && a.Length == 20000 && big++ % 2 == 0)
						items[i] = null;
				items.RemoveAll(o => o == null);
				bgcs = BackgroundGC(8000, true);
			}
			Console.WriteLine(Count().Replace("}", ",\"Background\":" + (bgcs > 0 ? 1 : 0) + "}"));
			Console.Out.Flush();
			while (Console.ReadLine() != null) {
			}
			GC.KeepAlive(items);
			return 0;
		}
	}

	// "report" (the HTML report's test, tests/test_report.c): one
	// static holder of two lists, neither with 80% of what it holds:
	// 20000 envelopes of long generic names, each with a payload segment
	// and its long[48], and 1750 byte[4096]. The holder is an object
	// suspect; the envelope, segment and long[] classes accumulate in
	// the first list's array (one point, three suspects), byte[] in the
	// second's.
	sealed class CorrelatedPayloadSegment<T>
	{
		public long[] Data = new long[48];
		public T Stamp;
	}

	sealed class RegistrationEnvelope<TKey, TValue>
	{
		public TKey Key;
		public CorrelatedPayloadSegment<TValue> Segment = new CorrelatedPayloadSegment<TValue>();
	}

	sealed class AcknowledgementRegistry
	{
		public List<RegistrationEnvelope<Dictionary<string, List<Tuple<int, string>>>, KeyValuePair<Guid, DateTimeOffset>>>
			RegistrationsAwaitingAcknowledgementByCorrelationIdentifier =
			new List<RegistrationEnvelope<Dictionary<string, List<Tuple<int, string>>>, KeyValuePair<Guid, DateTimeOffset>>>();
		public List<byte[]> Blocks = new List<byte[]>();
	}

	static class Reported
	{
		static AcknowledgementRegistry registryOfEveryAcknowledgementEverRequestedSinceTheProcessStarted;

		public static int Run()
		{
			var r = new AcknowledgementRegistry();
			for (int i = 0; i < 20000; i++)
				r.RegistrationsAwaitingAcknowledgementByCorrelationIdentifier.Add(
					new RegistrationEnvelope<Dictionary<string, List<Tuple<int, string>>>, KeyValuePair<Guid, DateTimeOffset>>());
			for (int i = 0; i < 1750; i++)
				r.Blocks.Add(new byte[4096]);
			registryOfEveryAcknowledgementEverRequestedSinceTheProcessStarted = r;
			GC.Collect();
			Console.WriteLine("{\"pid\":" + Environment.ProcessId + ",\"Envelopes\":" +
					  r.RegistrationsAwaitingAcknowledgementByCorrelationIdentifier.Count +
					  ",\"Blocks\":" + r.Blocks.Count + "}");
			Console.Out.Flush();
			while (Console.ReadLine() != null)
				;
			GC.KeepAlive(registryOfEveryAcknowledgementEverRequestedSinceTheProcessStarted);
			return 0;
		}
	}

	sealed class ChainLink { public ChainLink Next; }
	sealed class DLink { public DLink Next, Prev; }

	static class Linked
	{
		static ChainLink head;
		static DLink first;
		// a tree of 2000 nodes whose Left and Right a dump names alike
		// (by their type): no chain of more than its height
		static readonly SortedSet<int> sorted = new SortedSet<int>();

		public static int Run()
		{
			for (int i = 0; i < 1000; i++)
				head = new ChainLink { Next = head };
			first = new DLink();
			DLink last = first;
			for (int i = 1; i < 300; i++) {
				var d = new DLink { Prev = last };
				last.Next = d;
				last = d;
			}
			for (int i = 0; i < 2000; i++)
				sorted.Add(i);
			int links = 0, dlinks = 0;
			for (ChainLink c = head; c != null; c = c.Next)
				links++;
			for (DLink d = last; d != null; d = d.Prev)
				dlinks++;
			Console.WriteLine("{\"pid\":" + Environment.ProcessId + ",\"ChainLink\":" + links +
					  ",\"DLink\":" + dlinks + "}");
			Console.Out.Flush();
			while (Console.ReadLine() != null) {
			}
			GC.KeepAlive(first);
			GC.KeepAlive(sorted);
			return 0;
		}
	}

	static class Program
	{
		const int Sessions = 300, Entries = 1000, BigLen = 200000, Finals = 50, Keys = 10, PohLen = 8192;
		static readonly Publisher publisher = new Publisher();
		static readonly Dictionary<string, CacheEntry> Cache = new Dictionary<string, CacheEntry>();
		static readonly List<AddedHolder> added = new List<AddedHolder>();
		static long[] big;
		static byte[] poh;
		static GCHandle pinned, weak;
		static readonly WeakTarget weakTarget = new WeakTarget { Id = 7 };
		static readonly List<Key> keys = new List<Key>();
		static readonly ConditionalWeakTable<Key, Attached> attached = new ConditionalWeakTable<Key, Attached>();

		static void MakeFinalizables()
		{
			for (int i = 0; i < Finals; i++)
				new Finalizable { Id = i };
		}

		static int Main(string[] args)
		{
			if (args.Length > 0 && args[0] == "mark")
				return Marked.Run(Array.IndexOf(args, "bgc") > 0, Array.IndexOf(args, "small") > 0);
			if (args.Length > 0 && args[0] == "report")
				return Reported.Run();
			if (args.Length > 0 && args[0] == "names")
				return Named.Run();
			if (args.Length > 0 && args[0] == "chains")
				return Linked.Run();
			if (args.Length > 0 && args[0] == "modules")
				return Modules.Run();
			for (int i = 0; i < Sessions; i++)
				publisher.Tick += new Session().OnTick; // never removed: the leak
			for (int i = 0; i < Entries; i++)
				Cache["key" + i] = new CacheEntry { Key = "key" + i, Value = i };
			big = new long[BigLen]; // 1.6 MB: the large object heap
			pinned = GCHandle.Alloc(new byte[4096], GCHandleType.Pinned);
			poh = GC.AllocateArray<byte>(PohLen, pinned: true); // the pinned object heap
			weak = GCHandle.Alloc(weakTarget, GCHandleType.Weak);
			for (int i = 0; i < Keys; i++) {
				var k = new Key { Id = i };
				keys.Add(k);
				attached.Add(k, new Attached()); // held by a dependent handle only
			}
			GC.Collect();
			GC.WaitForPendingFinalizers();
			MakeFinalizables(); // unreachable, not finalized yet while the finalizer waits
			Console.WriteLine("{\"pid\":" + Environment.ProcessId + ",\"Session\":" + publisher.Count +
					  ",\"CacheEntry\":" + Cache.Count + ",\"BigLen\":" + big.Length +
					  ",\"Pinned\":" + (pinned.IsAllocated ? 1 : 0) + ",\"Finalizable\":" + Finals +
					  ",\"PohLen\":" + poh.Length + ",\"Weak\":" + (weak.Target != null ? 1 : 0) +
					  ",\"Attached\":" + Keys + "}");
			Console.Out.Flush();
			string line;
			while ((line = Console.ReadLine()) != null) {
				if (args.Length > 0 && args[0] == "grow") {
					for (int i = 0; i < 200; i++)
						added.Add(new AddedHolder());
					Console.WriteLine("{\"AddedHolder\":" + added.Count + "}");
					Console.Out.Flush();
				}
			}
			GC.KeepAlive(big);
			GC.KeepAlive(poh);
			pinned.Free();
			weak.Free();
			return 0;
		}
	}
}
