# Algorithms other than the ring: tree, halving-doubling, hierarchical, direct.
target_sources(syncsim_sim PRIVATE)
