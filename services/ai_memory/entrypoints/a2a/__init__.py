"""A2A: the agent tools as skills of an A2A agent."""
