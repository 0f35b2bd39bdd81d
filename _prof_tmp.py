import sys, time, numpy as np
from canasta_env.native import VectorGames
from canasta_env.engine import preset
v = VectorGames(256, preset(sys.argv[1]), seed=0)
acts = np.empty(256, dtype=np.int64)
n = 0; t0 = time.perf_counter(); c0 = time.process_time()
while time.perf_counter() - t0 < float(sys.argv[2]):
    for _ in range(16):
        v.sample_actions(acts); v.step(acts)
    n += 16 * 256
print(sys.argv[1], "wall", n / (time.perf_counter() - t0), "cpu", n / (time.process_time() - c0))
