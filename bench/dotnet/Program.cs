// Program.cs — `make bench`'s .NET process: about N million objects
// (the argument, default 5) of a few kinds — order lines with strings,
// small arrays and references between them, a dictionary over them —
// held until standard input closes. Prints "pid N objects M" when done.
// A line "churn S" makes it replace orders for S seconds (Churn below);
// a line "stall" prints the longest a thread of its own was held since
// the last (a snapshot's pause, as the process saw it).
using System;
using System.Collections.Generic;

namespace HeapBench
{
	class Customer
	{
		public string Name;
		public List<Order> Orders = new List<Order>();
	}

	class Order
	{
		public long Id;
		public Customer Customer;
		public Line[] Lines;
	}

	class Line
	{
		public string Sku;
		public int Quantity;
		public Order Order;
	}

	static class Program
	{
		// "churn S" on standard input: for S seconds replace customers'
		// orders (the old ones garbage, the new ones kept: the heap stays
		// the same size and the GC keeps moving and promoting), then one
		// line of what it did: operations, the GCs of each generation, the
		// time the GC paused the process (GC.GetTotalPauseDuration)
		static void Churn(Dictionary<string, Customer> byName, string[] skus, double seconds)
		{
			var all = new List<Customer>(byName.Values);
			var rnd = new Random(1);
			long ops = 0;
			int g0 = GC.CollectionCount(0), g1 = GC.CollectionCount(1), g2 = GC.CollectionCount(2);
			TimeSpan paused = GC.GetTotalPauseDuration();
			var sw = System.Diagnostics.Stopwatch.StartNew();
			while (sw.Elapsed.TotalSeconds < seconds) {
				for (int k = 0; k < 1000; k++, ops++) {
					var cu = all[rnd.Next(all.Count)];
					int o = rnd.Next(cu.Orders.Count);
					var or = new Order { Id = ops, Customer = cu, Lines = new Line[3] };
					for (int l = 0; l < 3; l++)
						or.Lines[l] = new Line { Sku = skus[(o + l) % skus.Length], Quantity = l + 1, Order = or };
					cu.Orders[o] = or;
				}
			}
			double s = sw.Elapsed.TotalSeconds;
			Console.WriteLine("churn ops/s " + (long)(ops / s) + " gcs " + (GC.CollectionCount(0) - g0) + " " +
					  (GC.CollectionCount(1) - g1) + " " + (GC.CollectionCount(2) - g2) + " paused_ms " +
					  (long)(GC.GetTotalPauseDuration() - paused).TotalMilliseconds + " of " + (long)(s * 1000));
			Console.Out.Flush();
		}

		static int Main(string[] args)
		{
			double millions = args.Length > 0 ? double.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : 5;
			long target = (long)(millions * 1e6), made = 0;
			var byName = new Dictionary<string, Customer>();
			var skus = new string[1000];
			for (int i = 0; i < skus.Length; i++)
				skus[i] = "SKU-" + i;
			// per order: Order, Line[3], 3 Line = 5 objects; per customer
			// of 20 orders also Customer, its name, its List and array
			for (int c = 0; made < target; c++) {
				var cu = new Customer { Name = "customer-" + c };
				byName[cu.Name] = cu;
				made += 4;
				for (int o = 0; o < 20; o++) {
					var or = new Order { Id = (long)c * 20 + o, Customer = cu, Lines = new Line[3] };
					for (int l = 0; l < 3; l++)
						or.Lines[l] = new Line { Sku = skus[(c + o + l) % skus.Length], Quantity = l + 1, Order = or };
					cu.Orders.Add(or);
					made += 5;
				}
			}
			GC.Collect();
			// the longest time a thread of the process's own was held
			// (a 1 ms sleep that took longer): what a snapshot's pause
			// costs the process, measured by it; "stall" prints it since
			// the last "stall" and starts again
			long stallTicks = 0;
			var meter = new System.Threading.Thread(() => {
				var clock = System.Diagnostics.Stopwatch.StartNew();
				for (;;) {
					long t = clock.ElapsedTicks;
					System.Threading.Thread.Sleep(1);
					long gap = clock.ElapsedTicks - t;
					long seen;
					while (gap > (seen = System.Threading.Interlocked.Read(ref stallTicks)) &&
					       System.Threading.Interlocked.CompareExchange(ref stallTicks, gap, seen) != seen) {
					}
				}
			}) { IsBackground = true };
			meter.Start();
			Console.WriteLine("pid " + Environment.ProcessId + " objects " + made);
			Console.Out.Flush();
			string line;
			while ((line = Console.ReadLine()) != null)
				if (line == "stall") {
					long t = System.Threading.Interlocked.Exchange(ref stallTicks, 0);
					Console.WriteLine("stall_ms " + (t * 1000 / System.Diagnostics.Stopwatch.Frequency));
					Console.Out.Flush();
				} else if (line.StartsWith("churn "))
					Churn(byName, skus, double.Parse(line.Substring(6), System.Globalization.CultureInfo.InvariantCulture));
			GC.KeepAlive(byName);
			return 0;
		}
	}
}
