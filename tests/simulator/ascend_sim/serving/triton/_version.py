# Rewritten per stack row by ascend_sim.wheels when the wheel is built.
__version__ = "3.2.2+sim"
