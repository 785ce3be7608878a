//! Reviewer definitions in `.claude/agents/*.md`: frontmatter (name, description, tools, model) and a prompt body.
