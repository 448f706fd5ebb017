# What greenstalk does with a put refused (OUT_OF_MEMORY) and a put stored
# buried (BURIED <id>). Usage: python3 greenstalk_overflow.py PORT
import sys
sys.path.insert(0, "/work/shared/peers/src/work/greenstalk/src")
import greenstalk

port = int(sys.argv[1])
for tube, word in (("capped", "OUT_OF_MEMORY"), ("buried", "BURIED <id>")):
    with greenstalk.Client(("127.0.0.1", port), use=tube) as c:
        c.put(b"first")
        try:
            r = c.put(b"second")
            print(f"greenstalk {word}: returned {r!r}")
        except Exception as e:
            print(f"greenstalk {word}: raised {type(e).__module__}.{type(e).__name__} {e.args!r}")
        print(f"greenstalk {word}: next command: {c.stats_tube(tube)['current-jobs-ready']} ready")
