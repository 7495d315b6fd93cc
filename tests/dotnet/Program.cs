// Program.cs — known objects in a .NET heap, for heapwalk's snapshot
// tests: a leaking event-handler list (listeners registered and never
// removed), an array on the large object heap, a pinned buffer, an
// array on the pinned object heap, objects waiting for finalization, a
// static cache, a weak GC handle, values attached to keys by a
// ConditionalWeakTable (dependent handles). Prints one JSON line: its
// pid and how many of each it made; then waits until its standard input
// closes (the test takes its snapshots meanwhile), or, with an argument
// "grow", makes AddedHolder objects on each line read.
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
