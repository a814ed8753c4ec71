# Rewritten per stack row by ascend_sim.wheels when the wheel is built.
__version__ = "2.10.0.post4+sim"
