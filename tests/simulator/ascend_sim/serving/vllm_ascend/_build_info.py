# Rewritten per stack row by ascend_sim.wheels (BUILD_INFO), as upstream's build writes it:
# an A2 build, as every wheel PyPI publishes.
__device_type__ = 'A2'
