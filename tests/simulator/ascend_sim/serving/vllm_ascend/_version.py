# Rewritten per stack row by ascend_sim.wheels when the wheel is built.
__version__ = "0.23.0+sim"
