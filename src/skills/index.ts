/** The public names of src/skills (what src/index.ts re-exports). */
export { renderSkills, SKILL_READ } from './skill-read.js';
export type { SkillInfo, SkillText } from './skill-set.js';
